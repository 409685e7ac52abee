/// A service that watches definitions a map can draw (a region service's fences, …) and can
/// publish them as events even where its configuration does not ask for it.
///
/// `locus view` turns this on for every service that offers it, so a recording's map shows
/// what the services watched whatever the config says; `locus run` never does. An implementer
/// publishes its definitions from then on exactly as its own setting for it would (same topics,
/// same events), and changes nothing else.
public protocol DefinitionPublishingService: ServicePlugin {
    /// Publish the definitions from the next message (or command) on. Called before the first.
    mutating func publishDefinitions()
}
