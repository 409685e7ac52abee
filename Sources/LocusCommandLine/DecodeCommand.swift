import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusBLE
import LocusCore
import LocusFormats

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a GNSS log or track, or BLE advertisements, into the observation messages a source would publish.",
        discussion: """
        Reads FILE (or standard input for `-`) and writes one recording-format JSON line per \
        observation, {"topic":…,"envelope":{…}}, as `locus record` would have captured them from a \
        live source: topics obs.fix.<source> and obs.sky.<source>, envelopes from producer <source> \
        with sequence numbers from 1. No services or sockets are involved; the output can be fed \
        to `locus replay`.

        Formats (detected from the first bytes unless --format is given):
          nmea   NMEA 0183 sentences ($GPRMC, $GNGGA, …; '#' comment lines allowed). Epochs are \
        dated by RMC/ZDA. Epochs before the first date are dated backwards from it, counting \
        each midnight the time of day passed (23:59:59 → 00:00:00) in between; --date gives the \
        day instead. A log with no date at all is dropped with a warning (the day is never \
        guessed). A gap of more than 24 h without a date cannot be seen in the time of day.
          gpsd   gpsd JSON reports, one per line (`gpspipe -w`): TPV → obs.fix, SKY → obs.sky. \
        gpsd's 95 % error figures become 1-sigma accuracies.
          gpx    GPX 1.0/1.1: one obs.fix per <trkpt>/<rtept> with a <time> (points without one \
        are skipped); <ele> as altitude MSL, <hdop>, <speed>/<course> (also in extensions).
          locus  Locus recordings: passed through (each producer renumbered from 1), obs.ble \
        included.
          ble    Bluetooth LE advertisements as hex, one per line → obs.ble.<source> (source \
        default hci0): `[TIME] [ADDRESS[/public|/random] RSSI] [ad:|hci:]HEX`. TIME is ISO-8601 \
        UTC or Unix seconds; lines without one take the previous line's (before any, --date's \
        midnight, else 1970-01-01). HEX is AD structures (advertising PDU, optionally followed by \
        the scan response) or an HCI LE Advertising Report event (legacy or extended, with or \
        without the H4 byte 04; told apart by the 3e event code in byte 1 or 2, or by the ad:/hci: prefix). AD lines \
        give ADDRESS and RSSI (without them: 00:00:00:00:00:00 and 0); HCI events carry their \
        own. '#' starts a comment line. Detected when the first line parses as such a line.

        Warnings go to standard error; --stats adds a line of counters there. Exit status: 0 ok, \
        1 unreadable input, 2 usage error.
        """
    )

    @Argument(help: "The file to decode, or - for standard input.")
    var file: String

    @OptionGroup var inputOptions: RecordingInputOptions

    @Flag(name: .customLong("no-sky"), help: "Leave out sky views (obs.sky.*).")
    var noSky = false

    @Flag(name: .long, help: "Print counters (fixes, sky views, skipped items) to standard error.")
    var stats = false

    func run() throws {
        let input: ByteInput
        do {
            input = try ByteInput(path: file)
        } catch {
            Self.complain("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        if try isBLEInput(input) {
            try decodeBLE(input)
            return
        }
        let options = inputOptions.decodeOptions(includeSky: !noSky)
        var decoder = RecordingDecoder(options: options)
        let output = RecordingOutput()
        do {
            try decoder.decode(input, format: inputOptions.recordingFormat) { obs in
                try output.write(obs, defaultProducer: inputOptions.source)
            }
            try output.flush()
        } catch let e as RecordingOutput.WriteError {
            // A closed pipe (`locus decode … | head`) is the reader's choice: no message.
            if e.code != EPIPE { Self.complain("cannot write the output: \(e.reason)") }
            throw ExitCode(ExitStatus.failure)
        } catch {
            try? output.flush()
            Self.complain("\(file): \(error)")
            throw ExitCode(ExitStatus.failure)
        }
        for w in decoder.warnings { Self.complain("warning: \(w)") }
        if stats {
            Self.complain("format=\(decoder.format?.rawValue ?? "none") \(decoder.statistics.summary)")
        }
    }

    /// `--format ble`, or no format given and the input is neither of the others but reads as BLE lines.
    private func isBLEInput(_ input: ByteInput) throws -> Bool {
        if inputOptions.format == RecordingInputOptions.bleFormat { return true }
        guard inputOptions.format == nil else { return false }
        let head = try input.peek(RecordingDecoder.detectionBytes)
        return RecordingFormat.detect(head) == nil && BLEHexLine.detect(head)
    }

    private func decodeBLE(_ input: ByteInput) throws {
        // The shared --source default names a GNSS receiver; a BLE scanner is hci0 by default.
        let source = inputOptions.source == "gps0" ? "hci0" : inputOptions.source
        var decoder = BLELineDecoder(source: source, fallbackTime: inputOptions.date.flatMap(RecordingInputOptions.parseDate))
        let output = RecordingOutput()
        do {
            try decoder.decode(input) { try output.write($0, defaultProducer: source) }
            try output.flush()
        } catch let e as RecordingOutput.WriteError {
            if e.code != EPIPE { Self.complain("cannot write the output: \(e.reason)") }
            throw ExitCode(ExitStatus.failure)
        } catch {
            try? output.flush()
            Self.complain("\(file): \(error)")
            throw ExitCode(ExitStatus.failure)
        }
        for w in decoder.warnings { Self.complain("warning: \(w)") }
        if stats { Self.complain("format=ble \(decoder.summary)") }
    }

    static func complain(_ message: String) {
        FileHandle.standardError.write(Data("locus decode: \(message)\n".utf8))
    }
}
