#!/bin/sh
# crawlplan for Common Crawl's Nutch: the limits file holds per-segment figures for 1 segment(s).
# Generator2 takes the number of segments from -maxNumSegments only (default 1; it overwrites
# generate.max.num.segments), so without the flag a domain gets 1/N of its budget.
set -e
bin/nutch org.apache.nutch.crawl.Generator2 crawl/crawldb crawl/segments -maxNumSegments 1
