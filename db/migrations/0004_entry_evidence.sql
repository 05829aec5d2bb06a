-- How each entry's fields are known, whether it may be listed, and what each list scrape read
-- (GET /api/v1/endpoints/:id/source). Entries stored before keep nulls until their list is read again.
ALTER TABLE `entries` ADD `version_evidence` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `state_evidence` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `url_evidence` text DEFAULT 'published' NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `unusable` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `first_seen` text;
--> statement-breakpoint
ALTER TABLE `entry_sources` ADD `last_seen` text;
--> statement-breakpoint
ALTER TABLE `vendor_lists` ADD `published_url` text;
--> statement-breakpoint
ALTER TABLE `vendor_lists` ADD `read_from` text;
--> statement-breakpoint
ALTER TABLE `vendor_lists` ADD `sha256` text;
