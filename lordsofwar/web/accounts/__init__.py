"""Accounts: sign-up, sign-in, sessions, CSRF tokens, sign-in and sign-up limits, profiles."""
