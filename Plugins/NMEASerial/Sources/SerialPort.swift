#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a serial device could not be opened or configured.
public struct SerialPortError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    /// The errno behind it, if any.
    public var code: Int32?
    public init(_ message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }
    public var description: String { message }
}

/// termios speed constants for the baud rates Locus accepts.
public enum BaudRate {
    /// The `Bxxx` constant for `baud`, or nil when this system has none (or the rate is not a standard one).
    public static func speed(for baud: Int) -> speed_t? {
        switch baud {
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115200: return speed_t(B115200)
        case 230400: return speed_t(B230400)
        #if os(Linux)
        case 460800: return speed_t(B460800)
        case 921600: return speed_t(B921600)
        #endif
        default: return nil
        }
    }

    /// `speed(for:)`, or an error that says which rate has no constant.
    public static func requireSpeed(for baud: Int) throws -> speed_t {
        guard let s = speed(for: baud) else {
            throw SerialPortError("baud \(baud) has no termios speed constant (B\(baud)) on this system")
        }
        return s
    }
}

/// An open serial device: non-blocking, raw, polled with a timeout.
final class SerialPort {
    enum ReadResult: Equatable {
        case data(Int)
        /// Nothing arrived within the timeout.
        case timeout
        /// The device went away: hangup, EOF, read error.
        case gone(String)
    }

    let path: String
    private(set) var fd: Int32
    /// Device number of what was opened, to notice the path now naming another device.
    let rdev: UInt64

    private init(path: String, fd: Int32, rdev: UInt64) {
        self.path = path
        self.fd = fd
        self.rdev = rdev
    }

    deinit { close() }

    /// Opens `path` with `O_RDWR | O_NOCTTY | O_NONBLOCK` and sets raw mode, `baud` and `framing`, VMIN = VTIME = 0.
    static func open(path: String, baud: Int, framing: NMEASerialConfiguration.Framing) throws -> SerialPort {
        let speed = try BaudRate.requireSpeed(for: baud)
        let fd = Glibc_open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            throw SerialPortError("cannot open \(path): \(describe(e))", code: e)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            _ = Glibc_close(fd)
            throw SerialPortError("cannot stat \(path): \(describe(e))", code: e)
        }
        let port = SerialPort(path: path, fd: fd, rdev: UInt64(st.st_rdev))
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let e = errno
            throw SerialPortError("\(path) is not a terminal device: \(describe(e))", code: e)
        }
        cfmakeraw(&t)
        t.c_cflag &= ~tcflag_t(CSIZE | PARENB | PARODD | CSTOPB)
        #if os(Linux)
        t.c_cflag &= ~tcflag_t(CRTSCTS)
        #endif
        switch framing.dataBits {
        case 5: t.c_cflag |= tcflag_t(CS5)
        case 6: t.c_cflag |= tcflag_t(CS6)
        case 7: t.c_cflag |= tcflag_t(CS7)
        default: t.c_cflag |= tcflag_t(CS8)
        }
        switch framing.parity {
        case .none: break
        case .even: t.c_cflag |= tcflag_t(PARENB)
        case .odd: t.c_cflag |= tcflag_t(PARENB | PARODD)
        }
        if framing.stopBits == 2 { t.c_cflag |= tcflag_t(CSTOPB) }
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&t, speed) == 0, cfsetospeed(&t, speed) == 0 else {
            let e = errno
            throw SerialPortError("cannot set \(baud) baud on \(path): \(describe(e))", code: e)
        }
        guard tcsetattr(fd, TCSANOW, &t) == 0 else {
            let e = errno
            throw SerialPortError("cannot configure \(path) (\(baud) baud, \(framing)): \(describe(e))", code: e)
        }
        return port
    }

    /// Waits up to `timeoutMilliseconds` for input and reads what there is into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32) -> ReadResult {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, timeoutMilliseconds)
        if r < 0 {
            let e = errno
            return e == EINTR ? .timeout : .gone("poll failed: \(SerialPort.describe(e))")
        }
        if r == 0 { return .timeout }
        if p.revents & Int16(POLLNVAL) != 0 { return .gone("device descriptor became invalid") }
        if p.revents & Int16(POLLIN | POLLHUP | POLLERR) == 0 { return .timeout }
        // Read even on POLLHUP/POLLERR: what is left is delivered before the error.
        let n = Glibc_read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return .data(n) }
        if n == 0 {
            return .gone(p.revents & Int16(POLLHUP) != 0 ? "device hung up" : "end of file on device")
        }
        let e = errno
        switch e {
        case EAGAIN, EINTR:
            if p.revents & Int16(POLLHUP) != 0 { return .gone("device hung up") }
            if p.revents & Int16(POLLERR) != 0 { return .gone("device error") }
            return .timeout
        default:
            return .gone("read failed: \(SerialPort.describe(e))")
        }
    }

    /// Writes all of `bytes`, waiting up to `timeoutMilliseconds` in total for room.
    func write(_ bytes: [UInt8], timeoutMilliseconds: Int32 = 1000) throws {
        var off = 0
        var waited: Int32 = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc_write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n > 0 { off += n; continue }
            let e = errno
            guard n < 0, e == EAGAIN || e == EINTR else {
                throw SerialPortError("write to \(path) failed: \(SerialPort.describe(e))", code: e)
            }
            guard waited < timeoutMilliseconds else {
                throw SerialPortError("write to \(path) timed out (device not accepting data)")
            }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 50)
            waited += 50
        }
    }

    /// nil while `path` still names the opened device; otherwise why not (removed, replaced).
    func pathProblem() -> String? {
        var st = stat()
        if stat(path, &st) != 0 {
            let e = errno
            return e == ENOENT ? "device \(path) was removed" : "cannot stat \(path): \(SerialPort.describe(e))"
        }
        return UInt64(st.st_rdev) == rdev ? nil : "\(path) now names another device"
    }

    func close() {
        if fd >= 0 {
            _ = Glibc_close(fd)
            fd = -1
        }
    }

    /// Whether anything exists at `path` now (following symlinks), and its device number.
    static func identity(of path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_rdev) : nil
    }

    static func describe(_ e: Int32) -> String {
        let text = String(cString: strerror(e))
        switch e {
        case ENOENT: return "\(text) (device not present)"
        case ENXIO, ENODEV: return "\(text) (device gone)"
        case EACCES: return "\(text) (is the user in the dialout group?)"
        default: return text
        }
    }
}

// The POSIX calls, under names that do not clash with the methods above.
@inline(__always) private func Glibc_open(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
@inline(__always) private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func Glibc_read(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Int { read(fd, buf, n) }
@inline(__always) private func Glibc_write(_ fd: Int32, _ buf: UnsafeRawPointer, _ n: Int) -> Int { write(fd, buf, n) }
