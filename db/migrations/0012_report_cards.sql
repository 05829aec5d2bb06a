-- A developer's certified products, as the registry (db/vendors.json) gives them: JSON array, or
-- null until its lists are read again.
ALTER TABLE `vendors` ADD `certifications` text;
--> statement-breakpoint
-- The names of the figures a history row holds (a JSON array), once per distinct list: rows keep
-- their values alone, in that order, so a release that adds a figure leaves older rows readable.
CREATE TABLE `report_figure_names` (
  `id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
  `names` text NOT NULL UNIQUE
);
--> statement-breakpoint
-- Report-card history: per UTC day, the figures each developer (and, under vendor_id '', the
-- whole directory) stood at when that day's last index was built. One row a day at most.
-- `generated` 1: a made-up point of the demo dataset (data:sample), not a recorded one.
CREATE TABLE `report_history` (
  `vendor_id` text NOT NULL,
  `day` integer NOT NULL,
  `names_id` integer NOT NULL REFERENCES `report_figure_names`(`id`),
  `figures` text NOT NULL,
  `generated` integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (`vendor_id`, `day`)
) WITHOUT ROWID;
