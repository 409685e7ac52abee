/// NMEA 0183 decoding (issue 3, in progress): sentences, framing, and epoch assembly into
/// `Fix` and `SkyView` observations. Usable without the bus.
public enum LocusNMEA {}
