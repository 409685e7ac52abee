import Foundation

/// Standard output from any thread, in order with `print`. C's `stdout` is a global `var` the
/// Swift 6 compiler will not let code touch, so this flushes every stdio stream (`print`'s
/// buffer among them) and then writes to file descriptor 1 itself.
public enum StandardOutput {
    /// Writes all of `bytes` (what `print` buffered goes first). Stops early only on an error
    /// of the descriptor (a closed pipe), as `fwrite` did.
    public static func write<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        fflush(nil)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    /// Sends what `print` buffered.
    public static func flush() { fflush(nil) }
}
