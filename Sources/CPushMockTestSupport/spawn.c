// GNU extensions the Swift Glibc module does not import (they need _GNU_SOURCE).
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "CPushMockTestSupport.h"

int pushmock_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int pushmock_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int pushmock_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
