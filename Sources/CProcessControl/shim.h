// Linux process calls the Glibc module does not expose to Swift (they need _GNU_SOURCE or
// <sys/prctl.h>). Header-only: nothing to link but libc.
#ifndef LOCUS_PROCESS_CONTROL_SHIM_H
#define LOCUS_PROCESS_CONTROL_SHIM_H

#include <sys/prctl.h>
#include <fcntl.h>

int pipe2(int pipefd[2], int flags);

/// Orphaned descendants are re-parented to this process rather than to init.
static inline int locus_become_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/// A pipe whose both ends close on exec.
static inline int locus_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#endif
