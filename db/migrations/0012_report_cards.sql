-- A developer's certified products, as the registry (db/vendors.json) gives them: JSON array, or
-- null until its lists are read again.
ALTER TABLE `vendors` ADD `certifications` text;
--> statement-breakpoint
-- Report-card history: per UTC day, the figures each developer (and, under vendor_id '', the
-- whole directory) stood at when that day's last index was built. One row a day at most.
CREATE TABLE `report_history` (
  `vendor_id` text NOT NULL,
  `day` integer NOT NULL,
  `figures` text NOT NULL,
  PRIMARY KEY (`vendor_id`, `day`)
) WITHOUT ROWID;
