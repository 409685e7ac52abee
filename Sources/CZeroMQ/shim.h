#ifndef LOCUS_CZEROMQ_SHIM_H
#define LOCUS_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
