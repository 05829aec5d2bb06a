CREATE TABLE `probe_history` (
	`url_key` integer PRIMARY KEY NOT NULL,
	`last_at` integer NOT NULL,
	`last_up_at` integer,
	`last_down_at` integer,
	`pruned_day` integer NOT NULL,
	`records` blob NOT NULL,
	`first_day` integer,
	`days` blob
);
--> statement-breakpoint
CREATE INDEX `probe_history_pruned_day` ON `probe_history` (`pruned_day`);
