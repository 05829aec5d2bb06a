-- Each distinct raw body (CapabilityStatement, SMART configuration) is stored once in
-- probe_bodies; probe rows refer to it by id. Bodies are deduplicated here by byte equality (TEXT
-- compares as memcmp); their SHA-256 (the key new writes look bodies up by) is filled in by
-- openDatabase right after the migrations, as SQLite has no SHA-256 of its own.
CREATE TABLE `probe_bodies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sha256` text,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `probe_bodies_sha256_unique` ON `probe_bodies` (`sha256`);
--> statement-breakpoint
ALTER TABLE `probes` ADD `metadata_body_id` integer REFERENCES `probe_bodies`(`id`);
--> statement-breakpoint
ALTER TABLE `probes` ADD `smart_body_id` integer REFERENCES `probe_bodies`(`id`);
--> statement-breakpoint
CREATE TEMP TABLE `probe_body_refs` (
	`probe_rowid` integer NOT NULL,
	`kind` integer NOT NULL,
	`body_id` integer NOT NULL,
	`nth` integer NOT NULL,
	PRIMARY KEY (`probe_rowid`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO temp.`probe_body_refs` (`probe_rowid`, `kind`, `body_id`, `nth`)
SELECT `probe_rowid`, `kind`, dense_rank() OVER (ORDER BY `body`), row_number() OVER (PARTITION BY `body` ORDER BY `probe_rowid`, `kind`)
FROM (
	SELECT rowid AS `probe_rowid`, 0 AS `kind`, `metadata_body` AS `body` FROM `probes` WHERE `metadata_body` IS NOT NULL
	UNION ALL
	SELECT rowid, 1, `smart_body` FROM `probes` WHERE `smart_body` IS NOT NULL
);
--> statement-breakpoint
INSERT INTO `probe_bodies` (`id`, `body`)
SELECT r.`body_id`, CASE r.`kind` WHEN 0 THEN p.`metadata_body` ELSE p.`smart_body` END
FROM temp.`probe_body_refs` r JOIN `probes` p ON p.rowid = r.`probe_rowid`
WHERE r.`nth` = 1
ORDER BY r.`body_id`;
--> statement-breakpoint
UPDATE `probes` SET
	`metadata_body_id` = (SELECT `body_id` FROM temp.`probe_body_refs` WHERE `probe_rowid` = `probes`.rowid AND `kind` = 0),
	`smart_body_id` = (SELECT `body_id` FROM temp.`probe_body_refs` WHERE `probe_rowid` = `probes`.rowid AND `kind` = 1);
--> statement-breakpoint
DROP TABLE temp.`probe_body_refs`;
--> statement-breakpoint
ALTER TABLE `probes` DROP COLUMN `metadata_body`;
--> statement-breakpoint
ALTER TABLE `probes` DROP COLUMN `smart_body`;
--> statement-breakpoint
CREATE INDEX `probes_metadata_body` ON `probes` (`metadata_body_id`);
--> statement-breakpoint
CREATE INDEX `probes_smart_body` ON `probes` (`smart_body_id`);
