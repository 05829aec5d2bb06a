-- What the rule that keeps an entry out of the listings found ("host is a private IPv4 address"),
-- served by id as `meta.unusable.detail`. Entries stored before keep null until their list is read again.
ALTER TABLE `entries` ADD `unusable_detail` text;
