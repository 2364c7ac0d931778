-- 017-name-times: comm_history by time.
--
-- Two readers ask comm_history for the rows whose start or end falls in a
-- span of time: commd's shipping to ClickHouse, every round (the names
-- begun or ended since the last), and retention (the names that ended
-- before the cut). Without an index both read every row, and a machine
-- that forks a lot keeps millions of them (1,007,526 rows: 85 ms a round
-- against 15 ms with these; bench/RESULTS.md).
CREATE INDEX comm_history_start ON comm_history(start_ts);
CREATE INDEX comm_history_end ON comm_history(end_ts);
