-- 016-boot: the boot a live capture ran in.
--
-- capture.boot is /proc/sys/kernel/random/boot_id at the capture's start
-- (NULL for an import). A trace clock starts again at every boot, so a
-- ts means something only together with the boot: commd's shipping to
-- ClickHouse (docs/fleet.md) tags every row with it, and ships the rows
-- of this boot's captures only.
ALTER TABLE capture ADD COLUMN boot TEXT;
