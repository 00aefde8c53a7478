/* sd-bus, the D-Bus client of libsystemd, is not linked: JobrunConditions loads libsystemd.so.0
   with dlopen when it asks NetworkManager whether the network is metered, so jobrun starts on
   machines without systemd and builds without libsystemd-dev. These are the few declarations it
   uses, as sd-bus.h has them (stable since systemd 221); every function here takes a fixed list
   of arguments, so Swift calls it through the looked-up pointer. No logic here. */
#ifndef JOBRUN_CSDBUS_SHIM_H
#define JOBRUN_CSDBUS_SHIM_H
#include <stdint.h>

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;

/* A D-Bus error: its name (org.freedesktop.DBus.Error.ServiceUnknown, …) and message;
   sd_bus_error_free releases what the library filled in. Zeroed means "no error". */
typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;

typedef int (*jobrun_sd_bus_new_fn)(sd_bus **ret);
typedef int (*jobrun_sd_bus_set_address_fn)(sd_bus *bus, const char *address);
typedef int (*jobrun_sd_bus_set_bus_client_fn)(sd_bus *bus, int b);
typedef int (*jobrun_sd_bus_start_fn)(sd_bus *bus);
typedef int (*jobrun_sd_bus_is_ready_fn)(sd_bus *bus);
typedef int (*jobrun_sd_bus_process_fn)(sd_bus *bus, sd_bus_message **ret);
typedef int (*jobrun_sd_bus_wait_fn)(sd_bus *bus, uint64_t timeout_usec);
typedef sd_bus *(*jobrun_sd_bus_close_unref_fn)(sd_bus *bus);
typedef int (*jobrun_sd_bus_message_new_method_call_fn)(
    sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface,
    const char *member);
typedef int (*jobrun_sd_bus_message_append_basic_fn)(sd_bus_message *m, char type, const void *p);
typedef int (*jobrun_sd_bus_message_set_auto_start_fn)(sd_bus_message *m, int b);
typedef int (*jobrun_sd_bus_call_fn)(
    sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
typedef int (*jobrun_sd_bus_message_enter_container_fn)(sd_bus_message *m, char type, const char *contents);
typedef int (*jobrun_sd_bus_message_read_basic_fn)(sd_bus_message *m, char type, void *p);
typedef sd_bus_message *(*jobrun_sd_bus_message_unref_fn)(sd_bus_message *m);
typedef void (*jobrun_sd_bus_error_free_fn)(sd_bus_error *e);

#endif
