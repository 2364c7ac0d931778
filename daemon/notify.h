/* notify.h — the systemd notification protocol (sd_notify(3)), spoken
 * directly: one datagram to $NOTIFY_SOCKET. A no-op when not run by
 * systemd. */
#ifndef COMMD_NOTIFY_H
#define COMMD_NOTIFY_H

#include <stdint.h>

/* Sends "READY=1", "STATUS=...", "WATCHDOG=1", "STOPPING=1"... Returns 1
 * sent, 0 no systemd, -1 error. */
int notify_send(const char *state);

/* The watchdog interval systemd asked for (WATCHDOG_USEC), 0 when none. */
uint64_t notify_watchdog_usec(void);

#endif
