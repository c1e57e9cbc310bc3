from crawlplan import hosts


def test_host_key_forms_round_trip():
    assert hosts.host_of("https://WWW.Example.com:8080/a?b") == "www.example.com"
    assert hosts.surt_host("www.blog.example.com") == "com,example,blog"
    assert hosts.rev_host("www.blog.example.com") == "com.example.blog"
    assert hosts.surt_to_rev("com,example,blog") == "com.example.blog"
    assert hosts.rev_to_surt("com.example.blog") == "com,example,blog"
    assert hosts.rev_to_host("com.example.blog") == "blog.example.com"
    # a bare "www.com" keeps its www (it is the registered domain itself)
    assert hosts.surt_host("www.com") == "com,www"


def test_registered_domain_uses_public_suffixes():
    assert hosts.registered_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert hosts.registered_domain("a.b.example.com") == "example.com"
    assert hosts.registered_domain("192.168.0.1") is None


def test_tld_categories_follow_the_paper():
    assert hosts.tld_category("cs.stanford.edu") == "academic"
    assert hosts.tld_category("www.ox.ac.uk") == "academic"
    assert hosts.tld_category("example.com") == "commercial"
    assert hosts.tld_category("wikipedia.org") == "nonprofit"
    assert hosts.tld_category("www.gov.uk") == "government"
    assert hosts.tld_category("service.gouv.fr") == "government"
    assert hosts.tld_category("spiegel.de") == "country-code"
    assert hosts.tld_category("example.xyz") == "other"
