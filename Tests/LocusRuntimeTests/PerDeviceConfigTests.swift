import Foundation
import LocusCore
import LocusPlugins
import Logging
import Testing
@testable import LocusRuntime

/// `per_device: true` on service entries (issue 16, item 3), with the built-in plugins.
struct PerDeviceConfigTests {
    func load(_ yaml: String) -> Result<LocusConfiguration, ConfigErrors> {
        let loader = ConfigLoader(factories: BuiltinPlugins.all, environment: ["LOCUS_RUNTIME_DIR": "/tmp/locus-t"],
                                  logger: Logger(label: "test"))
        do { return .success(try loader.load(text: yaml, file: "t.yaml", directory: "/cfg", mode: .full)) } catch let e as ConfigErrors {
            return .failure(e)
        } catch {
            return .failure(ConfigErrors(errors: [ConfigError(file: "t.yaml", line: 0, column: 0, message: "\(error)")]))
        }
    }

    func messages(_ yaml: String) -> [String] {
        if case .failure(let e) = load(yaml) { return e.errors.map { "\($0.line): \($0.message)" } }
        return []
    }

    static let source = "sources: [{type: mqtt, id: phones}]\n"

    @Test func aPerDeviceServiceIsWrappedAndItsTopicsAreFamilies() throws {
        let c = try load(Self.source + "services: [{type: standard, id: here, per_device: true}]\n"
                         + "sinks: [{type: file, id: f, path: /tmp/x.jsonl, topics: [\"location.update.here.van7\"]}]\n").get()
        let service = try #require(c.plugins.first { $0.id == "here" })
        guard case .service(let s) = service.instance else { Issue.record("not a service"); return }
        #expect(s is PerDeviceService)
        #expect(s.produces.contains("location.update.here."))
    }

    @Test func theRegionAndBeaconServicesKeyTheirStateByDeviceThemselves() throws {
        for (type, id) in [("region", "fences"), ("beacon", "near")] {
            let c = try load("hub: {external_topics: [obs.ble.]}\n" + Self.source
                             + "services: [{type: \(type), id: \(id), persist: false, per_device: true}]\n").get()
            let service = try #require(c.plugins.first { $0.id == id })
            guard case .service(let s) = service.instance else { Issue.record("not a service"); return }
            #expect(!(s is PerDeviceService) && s is any DeviceKeyedService && s is any CommandableService, "\(type)")
        }
    }

    @Test func refusedWhereItCannotWork() {
        let onSource = messages("sources: [{type: mqtt, id: phones, per_device: true}]\n")
        #expect(onSource.count == 1 && onSource[0].contains("per_device"), "\(onSource)")
        let notBool = messages(Self.source + "services: [{type: standard, id: here, per_device: maybe}]\n")
        #expect(notBool.count == 1 && notBool[0].contains("expected true or false for 'per_device'"), "\(notBool)")
    }

    @Test func maxDevicesReachesEveryKindOfPerDeviceService() throws {
        let c = try load("hub: {external_topics: [obs.ble.]}\n" + Self.source + """
            services:
              - {type: standard, id: here, per_device: true, max_devices: 3}
              - {type: region, id: fences, persist: false, per_device: true, max_devices: 4}
              - {type: beacon, id: near, persist: false, per_device: true}

            """).get()
        let here = try #require(c.plugins.first { $0.id == "here" })
        guard case .service(let s) = here.instance, let wrapped = s as? PerDeviceService else { Issue.record("not wrapped"); return }
        #expect(wrapped.maxDevices == 3)
        #expect(c.plugins.first { $0.id == "fences" }?.setup.maxDevices == 4)
        #expect(c.plugins.first { $0.id == "near" }?.setup.maxDevices == PluginSetup.defaultMaxDevices)
    }

    @Test func maxDevicesIsRefusedWithoutPerDeviceOrBelowOne() {
        let alone = messages(Self.source + "services: [{type: standard, id: here, max_devices: 10}]\n")
        #expect(alone.count == 1 && alone[0].hasPrefix("2: ") && alone[0].contains("applies only with 'per_device: true'"), "\(alone)")
        for bad in ["0", "-1", "lots", "1.5"] {
            let m = messages(Self.source + "services: [{type: standard, id: here, per_device: true, max_devices: \(bad)}]\n")
            #expect(m.count == 1 && m[0].contains("expected a whole number of at least 1 for 'max_devices'"), "\(bad): \(m)")
        }
        let onSink = messages(Self.source + "sinks: [{type: console, id: c, max_devices: 3}]\n")
        #expect(onSink.count == 1 && onSink[0].contains("unknown key 'max_devices'"), "\(onSink)")
    }
}
