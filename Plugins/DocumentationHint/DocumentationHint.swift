import PackagePlugin

/// `swift package generate-documentation` on a checkout without `STRATA_DOCS=1`: swift-docc-plugin
/// is not a dependency then (Package.swift adds it only under that variable, so that apps
/// depending on Strata never fetch it), and this stand-in, which answers to the same verb, says
/// how the documentation is built instead of SwiftPM's "Unknown subcommand or plugin name".
@main
struct DocumentationHint: CommandPlugin {
    struct UseTheScript: Error, CustomStringConvertible {
        var description: String {
            "Strata's documentation is built by scripts/docs.sh (it sets STRATA_DOCS=1, which adds "
                + "swift-docc-plugin to Package.swift); the archives land in .build/plugins/Swift-DocC/outputs/. "
                + "Or run: STRATA_DOCS=1 swift package generate-documentation --target StrataSQLite"
        }
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        throw UseTheScript()
    }
}
