-- 005-capture-clock: what a capture's timestamps mean and where they came
-- from.
--
--   clock   the trace clock ("mono" for a live capture; a trace.dat's own:
--           "local", "counter", "x86-tsc"...). Timestamps and every
--           duration derived from them count in its units: nanoseconds
--           for most clocks, not for counter, uptime (jiffies) or x86-tsc
--           (TSC ticks, unless trace-cmd converted them). NULL: unknown.
--   buffer  the ring buffer read: a live capture's tracefs instance; for an
--           import the trace.dat buffer, "top" or an instance's name
--           (trace-cmd record -B NAME), or several names separated by
--           commas when `commd import --buffer all` merged them. NULL in
--           captures made before this.
ALTER TABLE capture ADD COLUMN clock TEXT;
ALTER TABLE capture ADD COLUMN buffer TEXT;
