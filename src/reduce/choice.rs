//! Choice trees: a pass's possible moves as a tree of choices, each explored once.
//!
//! A pass step asks its [`Chooser`] for choices (which example, which variant,
//! ...) instead of looping itself; the tree remembers which branches are used
//! up, so the scheduler can run one step at a time, in deterministic or random
//! order, and knows when a pass has nothing left to try on the current test
//! case. This is the design of Hypothesis's `choicetree.py` (MacIver and
//! Donaldson, "Test-Case Reduction via Test-Case Generation", ECOOP 2020).

/// A step's choices ran out at some depth: every branch there is used up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeadBranch;

const UNVISITED: u32 = 0;
const DEAD: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
struct Node {
    /// Number of choices here, fixed at the first visit.
    n: Option<usize>,
    /// Choices not yet used up.
    live: usize,
    /// Per choice: `UNVISITED`, `DEAD`, or the index of its child node.
    children: Vec<u32>,
}

/// Which branches of one pass's choices are used up, for one test case.
#[derive(Clone, Debug)]
pub(crate) struct ChoiceTree {
    nodes: Vec<Node>,
    exhausted: bool,
}

impl ChoiceTree {
    pub(crate) fn new() -> Self {
        ChoiceTree { nodes: vec![Node::default()], exhausted: false }
    }

    /// Whether every branch has been explored.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted
    }
}

/// How choices are ordered at each depth.
#[derive(Debug)]
pub(crate) enum Selection<'a> {
    /// From the previous step's choice at this depth downwards, wrapping around
    /// to the top (Hypothesis's `prefix_selection_order`): a moving index.
    Prefix(&'a [usize]),
    /// Random, from the given generator.
    Random(&'a mut fastrand::Rng),
}

/// Hands out one step's choices and records them in the tree.
#[derive(Debug)]
pub(crate) struct Chooser<'a> {
    tree: &'a mut ChoiceTree,
    selection: Selection<'a>,
    path: Vec<usize>,
    trail: Vec<usize>,
    resume: Option<Vec<usize>>,
}

impl<'a> Chooser<'a> {
    pub(crate) fn new(tree: &'a mut ChoiceTree, selection: Selection<'a>) -> Self {
        Chooser { tree, selection, path: Vec::new(), trail: vec![0], resume: None }
    }

    /// Chooses one of `n` options that is not used up and satisfies `keep`
    /// (options failing `keep` are used up at once, without a test).
    pub(crate) fn choose(&mut self, n: usize, mut keep: impl FnMut(usize) -> bool) -> Result<usize, DeadBranch> {
        let at = *self.trail.last().expect("the trail starts at the root");
        let depth = self.path.len();
        {
            let node = &mut self.tree.nodes[at];
            if node.n.is_none() {
                node.n = Some(n);
                node.live = n;
                node.children = vec![UNVISITED; n];
            }
        }
        let n = self.tree.nodes[at].n.unwrap_or(0);
        if n == 0 || self.tree.nodes[at].live == 0 {
            return Err(DeadBranch);
        }
        let order = order(&mut self.selection, depth, n);
        for i in order {
            let node = &mut self.tree.nodes[at];
            if node.live == 0 {
                break;
            }
            if node.children[i] == DEAD {
                continue;
            }
            if !keep(i) {
                node.children[i] = DEAD;
                node.live -= 1;
                continue;
            }
            if node.children[i] == UNVISITED {
                let index = u32::try_from(self.tree.nodes.len()).expect("fewer than 4 billion nodes");
                self.tree.nodes[at].children[i] = index;
                self.tree.nodes.push(Node::default());
            }
            self.trail.push(self.tree.nodes[at].children[i] as usize);
            self.path.push(i);
            return Ok(i);
        }
        Err(DeadBranch)
    }

    /// Where the next step should start, instead of this step's own choices
    /// (a deletion that removed the bytes after the index moves it back).
    pub(crate) fn resume_at(&mut self, prefix: Vec<usize>) {
        self.resume = Some(prefix);
    }

    /// Marks the branch this step ended in as used up, and returns where the
    /// next step should start.
    pub(crate) fn finish(self) -> Vec<usize> {
        let tree = self.tree;
        // The node the step ended at is used up; so is every ancestor left
        // with no live child.
        let mut depth = self.trail.len() - 1;
        loop {
            if depth == 0 {
                tree.exhausted = true;
                break;
            }
            let parent = self.trail[depth - 1];
            let slot = self.path[depth - 1];
            let node = &mut tree.nodes[parent];
            if node.children[slot] != DEAD {
                node.children[slot] = DEAD;
                node.live -= 1;
            }
            if node.live > 0 {
                break;
            }
            depth -= 1;
        }
        self.resume.unwrap_or(self.path)
    }
}

/// The order in which to consider the `n` choices at `depth`, made as it
/// is walked: a step usually takes one of the first few, and `n` can be
/// the size of a large input (a `Vec` of it per step made every step cost
/// the input's size).
fn order(selection: &mut Selection<'_>, depth: usize, n: usize) -> Box<dyn Iterator<Item = usize>> {
    match selection {
        Selection::Prefix(prefix) => {
            let start = prefix.get(depth).map_or(n - 1, |&i| i.min(n - 1));
            Box::new((0..=start).rev().chain((start + 1..n).rev()))
        }
        Selection::Random(rng) => {
            // A few uniform picks, then everything from a random start, so a
            // nearly used-up node still finds its live choices.
            let picks: Vec<usize> = (0..n.min(8)).map(|_| rng.usize(..n)).collect();
            let start = rng.usize(..n);
            Box::new(picks.into_iter().chain(start..n).chain(0..start))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(tree: &mut ChoiceTree, prefix: &[usize], sizes: &[usize]) -> Result<Vec<usize>, DeadBranch> {
        let mut chooser = Chooser::new(tree, Selection::Prefix(prefix));
        let mut result = Ok(());
        for &n in sizes {
            if let Err(e) = chooser.choose(n, |_| true) {
                result = Err(e);
                break;
            }
        }
        let path = chooser.path.clone();
        chooser.finish();
        result.map(|()| path)
    }

    #[test]
    fn prefix_order_counts_down_from_the_previous_choice_and_wraps() {
        let mut tree = ChoiceTree::new();
        let mut seen = Vec::new();
        let mut prefix = vec![2];
        while !tree.exhausted() {
            let path = step(&mut tree, &prefix, &[4]).unwrap();
            seen.push(path[0]);
            prefix = path;
        }
        assert_eq!(seen, vec![2, 1, 0, 3]);
    }

    #[test]
    fn every_leaf_of_a_two_level_tree_is_visited_once() {
        let mut tree = ChoiceTree::new();
        let mut seen = Vec::new();
        let mut prefix = Vec::new();
        while !tree.exhausted() {
            let path = step(&mut tree, &prefix, &[3, 2]).unwrap();
            seen.push((path[0], path[1]));
            prefix = path;
        }
        seen.sort();
        assert_eq!(seen, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn options_failing_the_filter_are_used_up_without_a_step() {
        let mut tree = ChoiceTree::new();
        let mut chooser = Chooser::new(&mut tree, Selection::Prefix(&[]));
        assert_eq!(chooser.choose(5, |i| i % 2 == 0), Ok(4));
        chooser.finish();
        let mut chooser = Chooser::new(&mut tree, Selection::Prefix(&[4]));
        assert_eq!(chooser.choose(5, |i| i % 2 == 0), Ok(2));
        chooser.finish();
        let mut chooser = Chooser::new(&mut tree, Selection::Prefix(&[2]));
        assert_eq!(chooser.choose(5, |i| i % 2 == 0), Ok(0));
        chooser.finish();
        assert!(tree.exhausted());
    }

    #[test]
    fn random_order_visits_everything_exactly_once() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut tree = ChoiceTree::new();
        let mut seen = Vec::new();
        while !tree.exhausted() {
            let mut chooser = Chooser::new(&mut tree, Selection::Random(&mut rng));
            seen.push(chooser.choose(20, |_| true).unwrap());
            chooser.finish();
        }
        seen.sort();
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
    }
}
