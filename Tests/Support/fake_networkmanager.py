#!/usr/bin/python3
"""A stand-in NetworkManager for the metered probe's tests (JobrunConditionsTests).

Connects to the D-Bus bus at --address, owns org.freedesktop.NetworkManager and exports
/org/freedesktop/NetworkManager with the property Metered of the interface
org.freedesktop.NetworkManager, read through org.freedesktop.DBus.Properties.Get as the real
daemon serves it. Prints `ready <unique name>` on stdout once the name is owned.

    fake_networkmanager.py --address unix:path=/tmp/x/bus --metered 3
    fake_networkmanager.py --address unix:path=/tmp/x/bus --metered-file /tmp/x/metered
    fake_networkmanager.py --address unix:path=/tmp/x/bus --metered-sequence 2,2,1
    fake_networkmanager.py --address unix:path=/tmp/x/bus --no-reply

--metered VALUE: Metered is VALUE, a uint32 (type u) when it is a number from 0 to 2^32-1
(NetworkManager's are 0 UNKNOWN, 1 YES, 2 NO, 3 GUESS_YES, 4 GUESS_NO), else the string VALUE
(type s: a wrong type). --metered-file PATH: the same, read from PATH at every Get (one daemon
for a whole table of values). --metered-sequence A,B,…: A at the first Get, B at the second, and
so on, the last value from then on (conditions that change during a run). --no-reply: Get is received and never answered (a hung daemon).
Every Get received is logged on stderr as `Get <interface> <property>`. Exits when the bus goes
away, or on SIGTERM/SIGINT.

Needs Debian's python3-dbus and python3-gi (the system interpreter, /usr/bin/python3).
"""

import argparse
import signal
import sys

import dbus
import dbus.bus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.NetworkManager"
PATH = "/org/freedesktop/NetworkManager"
INTERFACE = "org.freedesktop.NetworkManager"
PROPERTIES = "org.freedesktop.DBus.Properties"


def variant(text):
    """A uint32 when `text` is one, else the string itself."""
    text = text.strip()
    if text.isdigit() and int(text) < 2**32:
        return dbus.UInt32(int(text), variant_level=1)
    return dbus.String(text, variant_level=1)


class NetworkManager(dbus.service.Object):
    def __init__(self, bus, metered):
        super().__init__(bus, PATH)
        # A function giving the value, or None: never answer.
        self.metered = metered
        # Calls held unanswered with --no-reply (kept, so that nothing answers them).
        self.held = []

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v",
                         async_callbacks=("reply", "error"))
    def Get(self, interface, prop, reply, error):
        print(f"Get {interface} {prop}", file=sys.stderr, flush=True)
        if self.metered is None:
            self.held.append((reply, error))
        elif interface == INTERFACE and prop == "Metered":
            reply(self.metered())
        else:
            error(dbus.exceptions.DBusException(
                f"no property {interface}.{prop}", name="org.freedesktop.DBus.Error.UnknownProperty"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--metered")
    group.add_argument("--metered-file")
    group.add_argument("--metered-sequence")
    group.add_argument("--no-reply", action="store_true")
    args = parser.parse_args()

    if args.metered is not None:
        metered = lambda: variant(args.metered)
    elif args.metered_file is not None:
        def metered():
            with open(args.metered_file, encoding="utf-8") as f:
                return variant(f.read())
    elif args.metered_sequence is not None:
        values = args.metered_sequence.split(",")
        answered = [0]

        def metered():
            value = values[min(answered[0], len(values) - 1)]
            answered[0] += 1
            return variant(value)
    else:
        metered = None

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    loop = GLib.MainLoop()
    bus = dbus.bus.BusConnection(args.address)
    bus.call_on_disconnection(lambda _: loop.quit())
    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, loop.quit)

    manager = NetworkManager(bus, metered)
    result = bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if result != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        print(f"cannot own {NAME} (request_name answered {result})", file=sys.stderr)
        return 1
    print(f"ready {bus.get_unique_name()}", flush=True)
    loop.run()
    manager.remove_from_connection()
    return 0


if __name__ == "__main__":
    sys.exit(main())
