-- How a repaired URL was repaired (url_evidence: cleaned, scheme-assumed, host-guessed; it said
-- `repaired` for every kind) and the text the list published (url_published). Entries stored
-- before are `cleaned` with no published text until their list is read again.
ALTER TABLE `entries` ADD `url_published` text;
--> statement-breakpoint
UPDATE `entries` SET `url_evidence` = 'cleaned' WHERE `url_evidence` = 'repaired';
