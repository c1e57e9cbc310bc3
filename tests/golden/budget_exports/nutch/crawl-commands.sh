#!/bin/sh
# crawlplan for Apache Nutch: inject once, then per round (fetch, parse, updatedb as usual)
# updatehostdb from the CrawlDB first, so every host the generator sees has a HostDB entry.
set -e
bin/nutch inject crawl/crawldb seeds.txt
bin/nutch updatehostdb -hostdb crawl/hostdb -crawldb crawl/crawldb
bin/nutch generate crawl/crawldb crawl/segments -hostdb crawl/hostdb -maxNumSegments 1
