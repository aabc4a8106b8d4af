vcl 4.1;
backend default { .host = "127.0.0.1"; .port = "18080"; }
sub vcl_recv { return (pass); }
