<%@ page import="java.net.*,java.io.*" %><%
  HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:18080" + request.getRequestURI()).openConnection();
  int code = c.getResponseCode();
  InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream();
  byte[] b = in.readAllBytes();
  response.setStatus(code);
  out.print(new String(b));
%>
