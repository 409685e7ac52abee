// libsystemd's D-Bus client (sd-bus), Debian package libsystemd-dev.
#include <systemd/sd-bus.h>
