extension Duration {
    /// The duration in seconds, as a `Double` (attoseconds included): the one conversion the
    /// modules share for rates, budgets and held times.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
