// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        // The migration test kit for app test targets: MigrationHistory, verifyUpgrades(to:).
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // The system SQLite: Debian's libsqlite3-dev on Linux, the SDK's on Apple platforms.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "StrataSQLite", dependencies: ["CSQLite"]),
        .target(name: "StrataSchema", dependencies: ["StrataSQLite"]),
        .target(name: "StrataMigrations", dependencies: ["StrataSQLite", "StrataSchema"]),
        .target(name: "Strata", dependencies: ["StrataSQLite", "StrataSchema", "StrataMigrations"]),
        .target(name: "StrataTesting", dependencies: ["Strata"]),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                "StrataTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The records guide's example (StrataSQLite.docc/SavingAndFetchingRecords.md) as a program: `swift run strata-notes` (Examples/demo.sh runs it too).
        .executableTarget(name: "strata-notes", dependencies: ["Strata"], path: "Examples/notes"),
        // The observation guide's example (StrataSQLite.docc/ObservingChanges.md), verbatim (ObservationExampleTests checks both and runs it).
        .executableTarget(name: "strata-observation", dependencies: ["Strata"], path: "Examples/observation"),
        .target(name: "StrataTestSupport", dependencies: ["Strata"], path: "Tests/StrataTestSupport"),
        // A second process for the DatabasePool tests (busy timeout across processes); not a product.
        .executableTarget(
            name: "StrataTestHelper", dependencies: ["StrataSQLite", "StrataSchema", "StrataMigrations"],
            path: "Tests/StrataTestHelper"),
        .testTarget(
            name: "StrataSQLiteTests", dependencies: ["StrataSQLite", "StrataTestSupport", "StrataTestHelper"]),
        .testTarget(name: "StrataSchemaTests", dependencies: ["StrataSchema", "StrataTestSupport"]),
        .testTarget(name: "StrataMigrationsTests", dependencies: ["StrataMigrations", "StrataTestSupport"]),
        .testTarget(name: "StrataTestingTests", dependencies: ["StrataTesting", "StrataTestSupport"]),
        // Every Swift block of the Markdown pages (README, DocC catalogs, ...), each compiled as its
        // own file with only the imports it shows (scripts/doc-examples.sh writes Tests/DocExamples;
        // DocExamplesTests checks it is up to date and runs the complete programs). Member imports
        // are checked too, so an example calling a Foundation method needs `import Foundation`.
        .executableTarget(
            name: "DocExamples",
            dependencies: ["Strata", "StrataSQLite", "StrataSchema", "StrataMigrations", "StrataTesting"],
            path: "Tests/DocExamples",
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["StrataTestSupport", "strata-notes", "strata-observation", "DocExamples"]),
        // Crash safety (the helper is killed mid-apply), property-based schema changes, hostile input.
        // Stand-ins for SwiftUI's and SwiftData's names, in a module of their own like the real ones,
        // and a test that uses them beside Strata's unqualified: it compiles only without a clash.
        .target(name: "NameClashStandIns", path: "Tests/NameClashStandIns"),
        .testTarget(name: "NameClashTests", dependencies: ["Strata", "NameClashStandIns"]),
        // The round trip of `strata generate swift`: Schema.swift, generated from schema.sql (hostile
        // names) and checked in, is compiled here and queried; GeneratedSourceTests fails when it is stale.
        .testTarget(
            name: "GeneratedSchemaTests", dependencies: ["Strata", "StrataTestSupport"],
            exclude: ["schema.sql"]),
        .testTarget(
            name: "StrataReliabilityTests", dependencies: ["Strata", "StrataTestSupport", "StrataTestHelper"]),
    ],
    swiftLanguageModes: [.v6]
)

// Documentation: `STRATA_DOCS=1 swift package generate-documentation` builds every module's
// DocC catalog (Sources/*/*.docc) with swift-docc-plugin. The plugin is added only when
// STRATA_DOCS is set, so a package that depends on Strata never resolves or fetches it (a
// separate docs package would not do: the plugin documents only the targets of the package it
// runs in). `.ci/run` builds the docs this way and fails on any warning.
if Context.environment["STRATA_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"))
} else {
    // Without it, `swift package generate-documentation` finds this stand-in (Plugins/DocumentationHint),
    // which says to run scripts/docs.sh instead of failing with "Unknown subcommand or plugin name".
    package.targets.append(
        .plugin(
            name: "DocumentationHint",
            capability: .command(
                intent: .custom(
                    verb: "generate-documentation",
                    description: "Says how to build Strata's documentation: scripts/docs.sh (STRATA_DOCS=1)."))))
}
