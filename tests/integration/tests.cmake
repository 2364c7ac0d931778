# Integration tests: the real commd and commq binaries on real files.
