// Linux process calls the Glibc module does not expose to Swift (they need _GNU_SOURCE or
// <sys/prctl.h>). Header-only: nothing to link but libc.
#ifndef LOCUS_PROCESS_CONTROL_SHIM_H
#define LOCUS_PROCESS_CONTROL_SHIM_H

#include <sys/prctl.h>
#include <fcntl.h>
#include <spawn.h>

int pipe2(int pipefd[2], int flags);
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/// Orphaned descendants are re-parented to this process rather than to init.
static inline int locus_become_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/// A pipe whose both ends close on exec.
static inline int locus_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// The spawned program starts in `path` (glibc 2.29 and later).
static inline int locus_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

#endif
