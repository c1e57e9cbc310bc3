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


def test_valid_hosts_are_dns_names_or_ip_literals():
    for host in ("example.com", "EXAMPLE.com", "a-b.c0.example", "x" * 63 + ".com", "localhost", "1.2.3.4", "::1",
                 "2001:db8::1", "host.a1", "bücher.example", "xn--bcher-kva.example", ".".join(["a" * 62] * 4)):
        assert hosts.valid_host(host), host
    assert hosts.ascii_host("Bücher.Example") == "xn--bcher-kva.example"      # IDNA A-labels, lower case
    assert hosts.ascii_host("EXAMPLE.com") == "example.com"
    bad = ["", "example.com.", "a..b", ".example.com", "-a.com", "a-.com", "a_b.com", "x" * 64 + ".com",
           ".".join(["a" * 63] * 4), "a" * 10_000, "ex ample.com", "ex\tample.com", "ex\nample.com", "ex\rample.com",
           "nul\x00.com", 'ex"ample.com', "ex<ample>.com", "x]]>y.com", "x<!--y.com", "../etc/passwd",
           "example.com:8080", "user@example.com", "[::1]", "fe80::1%eth0", "1.2.3", "01.2.3.4", "1.2.3.999",
           "xn--zz.com", "bad\ufffdutf8.com", "bad\x80x.com", "line\u2028sep.com", None, b"example.com"]
    for host in bad:
        assert not hosts.valid_host(host), repr(host)
        assert hosts.ascii_host(host) == "", repr(host)


def test_valid_host_takes_dns_names_and_ip_literals_only():
    for host in ("example.com", "www.blog.example.co.uk", "xn--caf-dma.example", "café.example.com", "localhost",
                 "a-b.example", "1.2.3.4", "::1", "2001:db8::1", "a" * 63 + ".com"):
        assert hosts.valid_host(host), host
    for host in ("", "x<!--y.com", 'a"b.com', "a b.com", "a\nb.com", "-a.com", "a-.com", "a..b.com", "a_b.com",
                 "a" * 64 + ".com", ".".join(["a" * 60] * 5), "256.1.1.1", "example.123", "fe80::1%eth0",
                 "bad\ufffd.example.com", "../etc", "a/b.com"):
        assert not hosts.valid_host(host), host


def test_host_of_drops_user_info_port_brackets_trailing_dot_and_case():
    assert hosts.host_of("http://User:pw@WWW.Example.COM.:8080/a?b") == "www.example.com"
    assert hosts.host_of("https://[2001:DB8::1]:443/") == "2001:db8::1"
    assert hosts.host_of("http://1.2.3.4/") == "1.2.3.4"
    assert hosts.host_of("http://café.example.com/") == "café.example.com"
    # not a valid host: no host keys are ever built from these
    for url in ("http://x<!--y.com/", "http://a_b.example.com/", "http://-a.com/", "dns:example.com",
                "http://[::1/", "http://" + "a" * 300 + ".com/", "http://ex ample.com/"):
        assert hosts.host_of(url) == "", url
