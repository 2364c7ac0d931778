/* config.h — /etc/commd/commd.conf: the daemon's options as
 * `name = value` lines (the long option names without dashes: db,
 * instance, buffer-kb, events, commit-ms, socket, max-db-mb), '#' comments, blank
 * lines. The command line overrides the file. */
#ifndef COMMD_CONFIG_H
#define COMMD_CONFIG_H

#include "daemon.h"

#define CONFIG_DEFAULT_PATH "/etc/commd/commd.conf"

/* Applies the file to o. A missing file is fine when !required. Returns
 * 0, or -1 with a "FILE:LINE: reason" message in err. Strings it sets
 * are allocated for the life of the process. */
int config_load(const char *path, int required, struct daemon_opts *o,
		char *err, size_t errlen);

#endif
