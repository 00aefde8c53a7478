// JobrunVerify
