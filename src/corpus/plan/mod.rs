//! The corpus run's plan, on the coordinator: which inputs a cover keeps and what each must keep ([`cover`], [`varying`]), the rounds of shrinks ([`rounds`]), which results to join ([`join`]) and shrink once more ([`alone`]); its jobs reach the workers through `drive.rs`'s `Phase`, and it imports nothing of `worker/`.

pub mod alone;
pub mod cover;
pub mod join;
pub mod rounds;
pub mod varying;
