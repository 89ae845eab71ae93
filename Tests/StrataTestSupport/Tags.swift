import Testing

extension Tag {
    /// Hostile input and attacks on Strata's promises: the engine attack suites (laid out by engine
    /// phase in StrataSchemaTests) and the attacks replayed through the command line
    /// (StrataReliabilityTests). Every such suite's type name ends in `AttackTests`, so
    /// `swift test --filter AttackTests` runs the whole set.
    @Tag public static var attack: Tag
}
