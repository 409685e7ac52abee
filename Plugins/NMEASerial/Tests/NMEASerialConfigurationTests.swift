import Foundation
import LocusCore
@testable import LocusNMEASerialPlugin
import Testing
#if canImport(Glibc)
import Glibc
import LocusTestKit
#endif

/// Config validation and the baud-rate mapping, without a device.
@Suite struct NMEASerialConfigurationTests {
    func decode(_ json: String) throws -> NMEASerialConfiguration {
        try JSONDecoder().decode(NMEASerialConfiguration.self, from: Data(json.utf8))
    }

    /// The ConfigValueError thrown for `json`, or nil.
    func valueError(_ json: String) -> ConfigValueError? {
        do {
            _ = try decode(json)
            return nil
        } catch let e as ConfigValueError {
            return e
        } catch {
            Issue.record("expected a ConfigValueError, got \(error)")
            return nil
        }
    }

    @Test func defaults() throws {
        let c = try decode(#"{"device": "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00"}"#)
        #expect(c.device == "/dev/serial/by-id/usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00")
        #expect(c.baud == 9600)
        #expect(c.framing == .init(dataBits: 8, parity: .none, stopBits: 1))
        #expect(c.framing.description == "8N1")
        #expect(c.initCommands.isEmpty)
        #expect(c.noDataTimeout == 5)
        #expect(c.reconnectMax == 2)
        #expect(!c.acceptMissingChecksum)
        #expect(c.date == .receiver && c.undatedHold == 10)
    }

    @Test func everyKeySet() throws {
        let c = try decode(#"""
            {"device": "/dev/ttyUSB0", "baud": 115200, "framing": "7e2", "init": ["$PMTK220,200*2C", "$PMTK314,0,1,0,1,1,5,0,0,0,0,0,0,0,0,0,0,0,0,0*2C"],
             "no_data_timeout": 1.5, "reconnect_max": 0.5, "accept_missing_checksum": true}
            """#)
        #expect(c.baud == 115200)
        #expect(c.framing == .init(dataBits: 7, parity: .even, stopBits: 2))
        #expect(c.initCommands.count == 2)
        #expect(c.noDataTimeout == 1.5)
        #expect(c.reconnectMax == 0.5)
        #expect(c.acceptMissingChecksum)
    }

    @Test func separateFramingKeys() throws {
        let c = try decode(#"{"device": "/dev/ttyS0", "data_bits": 7, "parity": "odd", "stop_bits": 2}"#)
        #expect(c.framing == .init(dataBits: 7, parity: .odd, stopBits: 2))
        let d = try decode(#"{"device": "/dev/ttyS0", "parity": "E"}"#)
        #expect(d.framing == .init(dataBits: 8, parity: .even, stopBits: 1))
    }

    @Test func missingDeviceIsADecodingError() {
        #expect(throws: DecodingError.self) { try decode(#"{"baud": 9600}"#) }
    }

    @Test(arguments: [0, 300, 1200, 2400, 14400, 28800, 76800, 250000, 500000, 1_000_000, -9600])
    func unsupportedBaudIsRejectedWithTheValidRates(baud: Int) throws {
        let e = try #require(valueError(#"{"device": "/dev/ttyUSB0", "baud": \#(baud)}"#))
        #expect(e.key == "baud")
        #expect(e.message == "baud must be one of 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600; found \(baud)")
    }

    @Test(arguments: NMEASerialConfiguration.validBaudRates)
    func everyValidBaudDecodesAndHasASpeedConstant(baud: Int) throws {
        let c = try decode(#"{"device": "/dev/ttyUSB0", "baud": \#(baud)}"#)
        #expect(c.baud == baud)
        let speed = try #require(BaudRate.speed(for: baud), "no termios constant for \(baud)")
        // The constant is the one termios reports back for that speed.
        var t = termios()
        #expect(cfsetospeed(&t, speed) == 0)
        #expect(cfsetispeed(&t, speed) == 0)
        #expect(cfgetospeed(&t) == speed)
        #expect(cfgetispeed(&t) == speed)
    }

    @Test func baudConstants() throws {
        #expect(BaudRate.speed(for: 4800) == speed_t(B4800))
        #expect(BaudRate.speed(for: 9600) == speed_t(B9600))
        #expect(BaudRate.speed(for: 115200) == speed_t(B115200))
        #expect(BaudRate.speed(for: 921600) == speed_t(B921600))
        // Distinct constants for distinct rates.
        let all = NMEASerialConfiguration.validBaudRates.compactMap(BaudRate.speed(for:))
        #expect(Set(all).count == NMEASerialConfiguration.validBaudRates.count)
        #expect(BaudRate.speed(for: 14400) == nil)
        #expect(throws: SerialPortError("baud 14400 has no termios speed constant (B14400) on this system")) {
            try BaudRate.requireSpeed(for: 14400)
        }
    }

    @Test(arguments: [
        (#""framing": "8X1""#, "framing"), (#""framing": "9N1""#, "framing"), (#""framing": "8N3""#, "framing"),
        (#""framing": "8N1", "parity": "none""#, "framing"), (#""data_bits": 9"#, "data_bits"),
        (#""parity": "mark""#, "parity"), (#""stop_bits": 0"#, "stop_bits"), (#""no_data_timeout": 0"#, "no_data_timeout"),
        (#""reconnect_max": 0.01"#, "reconnect_max"), (#""reconnect_max": 1e9"#, "reconnect_max"),
        (#""device": """#, "device"), (#""init": ["$PMTK220,200*2C\r\n"]"#, "init"),
    ])
    func invalidValuesAreRejectedAtTheirKey(fragment: String, key: String) throws {
        let json = fragment.hasPrefix(#""device""#) ? "{\(fragment)}" : #"{"device": "/dev/ttyUSB0", \#(fragment)}"#
        let e = try #require(valueError(json), "\(json) was accepted")
        #expect(e.key == key, "\(e.message)")
    }

    @Test func conflictingFramingNamesTheOtherKeys() throws {
        let e = try #require(valueError(#"{"device": "/dev/ttyUSB0", "framing": "8N1", "data_bits": 8, "stop_bits": 1}"#))
        #expect(e.message == "give either framing or data_bits, stop_bits, not both")
    }

    @Test func factoryDocumentsEveryKey() {
        let f = NMEASerialPlugin.factory
        #expect(f.type == "nmea-serial")
        #expect(f.kinds == [.source])
        let names = f.keys.map(\.name)
        #expect(names == ["device", "baud", "framing", "data_bits", "parity", "stop_bits", "init", "no_data_timeout",
                          "reconnect_max", "accept_missing_checksum", "publish_sentences", "date", "undated_hold"])
        #expect(f.keys.filter(\.isRequired).map(\.name) == ["device"])
        #expect(f.keys.allSatisfy { !$0.doc.isEmpty })
    }

    @Test func producesItsOwnTopics() {
        let s = NMEASerialSource(id: "car", configuration: .with { $0.device = "/dev/ttyUSB0" })
        #expect(s.produces == ["obs.fix.car", "obs.sky.car"])
        #expect(!s.drivesClock)
    }
}
