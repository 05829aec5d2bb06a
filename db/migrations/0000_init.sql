CREATE TABLE `vendors` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`endpoint_list_url` text NOT NULL,
	`last_scraped_at` text
);
--> statement-breakpoint
CREATE TABLE `vendor_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`vendor_id` text NOT NULL REFERENCES `vendors`(`id`),
	`url` text NOT NULL,
	`format` text NOT NULL,
	`audience` text,
	`fhir_version` text,
	`last_scraped_at` text,
	`last_entry_count` integer
);
--> statement-breakpoint
CREATE TABLE `entries` (
	`row_id` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`vendor_id` text NOT NULL REFERENCES `vendors`(`id`),
	`url` text NOT NULL,
	`organization_name` text,
	`npi` text,
	`tenant_id` text,
	`city` text,
	`state` text,
	`zip_code` text,
	`list_fhir_version` text DEFAULT 'UNKNOWN' NOT NULL,
	`list_access` text DEFAULT '[]' NOT NULL,
	`fhir_version` text DEFAULT 'UNKNOWN' NOT NULL,
	`access` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'listed' NOT NULL,
	`last_updated` text NOT NULL,
	`sort_key` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_id_unique` ON `entries` (`id`);
--> statement-breakpoint
CREATE INDEX `entries_sort_key` ON `entries` (`sort_key`);
--> statement-breakpoint
CREATE INDEX `entries_url` ON `entries` (`url`);
--> statement-breakpoint
CREATE INDEX `entries_vendor` ON `entries` (`vendor_id`);
--> statement-breakpoint
CREATE TABLE `entry_sources` (
	`entry_row_id` integer NOT NULL REFERENCES `entries`(`row_id`),
	`list_id` text NOT NULL REFERENCES `vendor_lists`(`id`),
	`present` integer DEFAULT true NOT NULL,
	PRIMARY KEY(`list_id`, `entry_row_id`)
);
--> statement-breakpoint
CREATE INDEX `entry_sources_entry` ON `entry_sources` (`entry_row_id`);
--> statement-breakpoint
CREATE TABLE `probes` (
	`url` text PRIMARY KEY NOT NULL,
	`probed_at` text NOT NULL,
	`probe_status` text NOT NULL,
	`metadata_http_status` integer,
	`metadata_body` text,
	`smart_http_status` integer,
	`smart_body` text,
	`error_kind` text,
	`duration_ms` integer,
	`fhir_version` text DEFAULT 'UNKNOWN' NOT NULL,
	`software_name` text,
	`software_version` text,
	`supported_resources` text DEFAULT '[]' NOT NULL,
	`smart_supported` integer DEFAULT false NOT NULL,
	`access` text,
	`smart_capabilities` text DEFAULT '[]' NOT NULL,
	`grant_types` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dataset_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `dataset_meta` (`key`, `value`) VALUES ('dataset_version', '0');
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`rate_limit` integer,
	`created_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);
