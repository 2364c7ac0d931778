-- 009-wall-clock: how a capture's trace clock maps to the time of day.
--
-- clock_map holds paired readings: at trace-clock time ts the system's
-- CLOCK_REALTIME read `realtime` (ns since the epoch, UTC); err is the
-- reading's uncertainty (ns). A live capture pairs the trace clock with
-- CLOCK_REALTIME at its start and at every commit, and stores a reading
-- whenever the offset moved by a microsecond or more since the one
-- before (a clock step, NTP's slewing), so a time is mapped with the
-- reading before it. An import gets the one offset the file holds when
-- trace-cmd recorded one (record --date), else no row: the capture's
-- times have no wall-clock meaning then (wall() gives NULL).
--
-- wall(ts) (commd's SQL function) and the reports use the latest reading
-- at or before ts of the newest capture whose span holds ts (the first
-- reading when ts is before all of them).
CREATE TABLE clock_map (
	capture INTEGER NOT NULL,
	ts INTEGER NOT NULL,
	realtime INTEGER NOT NULL,
	err INTEGER
);
CREATE INDEX clock_map_ts ON clock_map(capture, ts);
