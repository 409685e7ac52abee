import LocusCommandLine
import Odometer

/// `locus` with every built-in command and plugin type, plus `odometer`.
@main
struct LocusMain {
    static func main() async {
        await Locus.main(plugins: Locus.builtinPlugins + [OdometerPlugin.factory])
    }
}
