func test_parses_keys_values_comments_and_blank_lines() throws {
    let text = """
    # database settings
    host = db.example.com

    \tport=5432\t
      # indented comment
    url = postgres://u:p@h/db?sslmode=require&x=1
    empty =
    """
    try expectEqual(try parseConfig(text), [
        "host": "db.example.com",
        "port": "5432",
        "url": "postgres://u:p@h/db?sslmode=require&x=1",
        "empty": "",
    ])
    try expectEqual(try parseConfig(""), [:])
}

func test_missing_separator_reports_physical_line() throws {
    let text = "# comment\n\nname = x\njust some words\nother = y"
    try expectThrows(try parseConfig(text), ConfigError.missingSeparator(line: 4))
}

func test_empty_key() throws {
    try expectThrows(try parseConfig("a = 1\n   = 2"), ConfigError.emptyKey(line: 2))
}

func test_duplicate_key_is_an_error() throws {
    let text = "# c\nmode = fast\n\nmode = slow\n"
    try expectThrows(try parseConfig(text), ConfigError.duplicateKey("mode", line: 4))
    // the first error wins
    try expectThrows(try parseConfig("k=1\nk=2\nbroken"), ConfigError.duplicateKey("k", line: 2))
}

func test_crlf_line_endings() throws {
    let text = "# windows\r\nuser = admin\r\n\r\nshell=/bin/sh\r\nnothing\r\n"
    try expectThrows(try parseConfig(text), ConfigError.missingSeparator(line: 5))
    try expectEqual(try parseConfig("user = admin\r\nshell=/bin/sh\r\n"), ["user": "admin", "shell": "/bin/sh"])
}
