import LocusCommandLine

/// The `locus` binary: the command line with the built-in plugins. A binary with plugins of
/// your own is the same three lines in your package (docs/writing-plugins.md).
@main
struct LocusMain {
    static func main() async {
        await Locus.main(plugins: Locus.builtinPlugins)
    }
}
