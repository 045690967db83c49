//! tact CLI.
fn main() {}
