// jemalloc's options for every program linked with ${SLOTKV_MALLOC} (the server, engine_bench),
// read at its start: freed pages go back to the OS within about a second, by its background
// thread, rather than after 10 s when some allocation happens to run the purge: group maps and
// flush buffers fill and empty in cycles, and their freed pages would otherwise stay in RSS.
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks for.
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}
