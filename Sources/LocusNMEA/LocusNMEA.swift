/// NMEA 0183 decoding (issue 3): framing, sentences and epoch assembly into `Fix` and
/// `SkyView` observations. Usable without the bus.
///
/// - `NMEADecoder`: bytes in, `NMEAObservation`s out (the usual entry point).
/// - `NMEAFramer`: bytes in, checksummed `NMEASentenceView`s out.
/// - `NMEAEpochAssembler`: sentences in, observations out.
///
/// Supported: GGA, RMC, GLL, GNS, GSA, GSV, VTG, ZDA, GST, HDT, TXT from any talker (GP, GL, GA,
/// GB, BD, GQ, QZ, GI, GN, Quectel's PQ, and non-GNSS ones such as IN), NMEA 2.x–4.11 fields.
public enum LocusNMEA {}
