// swift-tools-version: 6.1
// Strata's benchmarks: a package of its own, so the library never depends on what it is compared with.
// Run everything with `bash Benchmarks/run.sh` (or `swift run -c release --package-path Benchmarks strata-bench`).
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v13)],
    products: [.executable(name: "strata-bench", targets: ["StrataBench"])],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The system SQLite for the raw C API baseline: the same libsqlite3 that Strata and GRDB link.
        .systemLibrary(name: "BenchSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "StrataBench",
            dependencies: [
                "BenchSQLite",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
