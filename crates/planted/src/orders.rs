//! A typed target's input: purchase orders, each a struct with integer,
//! string, vector and enum fields, built by `arbitrary` from the fuzzer's
//! bytes (with the `arbitrary` feature), and the check a shop runs on them.
//!
//! The bug: a bulk order (more than 999 items) whose supplier is given as a
//! URL has the URL's scheme looked at by its first byte, and a URL that starts
//! with `://` has an empty scheme: an index out of bounds. The smallest input
//! that shows it is one order, every field empty or zero, the URL `"://"`
//! and the quantity 1000.

/// How many items make an order a bulk order.
pub const BULK: u16 = 999;

/// One purchase order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Order {
    /// The order's number.
    pub id: u32,
    /// The customer's name.
    pub name: String,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// Where the goods come from.
    pub supplier: Supplier,
    /// How many items.
    pub quantity: u16,
}

/// An order's supplier.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Supplier {
    /// The shop's own stock.
    Stock,
    /// A supplier's ordering URL.
    Url(String),
    /// A warehouse's aisle and shelf.
    Shelf(u8, u8),
}

/// What the check found: the items in all orders, and the bulk orders that
/// go to a secure (`https`) supplier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Items over every order.
    pub items: u64,
    /// Bulk orders whose supplier URL is `https`.
    pub secure_bulk: usize,
}

/// Checks a day's orders.
pub fn check(orders: &[Order]) -> Summary {
    let mut summary = Summary::default();
    for order in orders {
        summary.items += u64::from(order.quantity);
        if let Supplier::Url(url) = &order.supplier {
            if order.quantity > BULK {
                if let Some((scheme, _)) = url.split_once("://") {
                    // The bug: an empty scheme has no first byte.
                    let secure = scheme.as_bytes()[0] == b'h' && scheme.ends_with('s');
                    summary.secure_bulk += usize::from(secure);
                }
            }
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(supplier: Supplier, quantity: u16) -> Order {
        Order { id: 7, name: "Ada".into(), tags: vec!["rush".into()], supplier, quantity }
    }

    #[test]
    fn orders_are_counted_and_secure_bulk_orders_found() {
        let orders = [
            order(Supplier::Url("https://a.example/order".into()), 1200),
            order(Supplier::Url("http://b.example".into()), 5000),
            order(Supplier::Stock, 3),
            order(Supplier::Shelf(4, 2), 1000),
            order(Supplier::Url("://no-scheme".into()), 999),
        ];
        assert_eq!(check(&orders), Summary { items: 1200 + 5000 + 3 + 1000 + 999, secure_bulk: 1 });
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_bulk_order_from_a_url_without_a_scheme_panics() {
        check(&[order(Supplier::Url("://".into()), 1000)]);
    }
}
