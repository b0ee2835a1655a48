extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let parts = self.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
