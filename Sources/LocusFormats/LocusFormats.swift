/// Readers for recorded location data (issue 3, in progress): NMEA logs, gpsd JSON
/// (`gpspipe -w`), GPX 1.0/1.1 and Locus recordings, detected from content.
public enum LocusFormats {}
