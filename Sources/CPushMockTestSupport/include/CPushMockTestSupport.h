#ifndef C_PUSHMOCK_TEST_SUPPORT_H
#define C_PUSHMOCK_TEST_SUPPORT_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so a child another thread
/// spawns meanwhile never inherits them. Returns 0, or -1 with errno set.
int pushmock_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest) (glibc 2.34): the child closes
/// every descriptor from `lowest` on. Returns 0 or an error number.
int pushmock_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// posix_spawn_file_actions_addchdir_np(actions, path) (glibc 2.29): the child starts in
/// `path`. Returns 0 or an error number.
int pushmock_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
