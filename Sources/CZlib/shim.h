#ifndef PUSHMOCK_CZLIB_SHIM_H
#define PUSHMOCK_CZLIB_SHIM_H
#include <zlib.h>

// zlib's init functions are macros that pass the version and struct size; Swift cannot call
// macros with arguments, so these wrap them.
static inline int pushmock_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int pushmock_deflate_init2(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
