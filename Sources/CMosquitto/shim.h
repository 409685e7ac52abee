// libmosquitto (Debian libmosquitto-dev), the MQTT client library of the Mosquitto project.
#include <mosquitto.h>
#include <mqtt_protocol.h>
