package dev.umbra.platform.trace;

import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

public class TraceContextFilter {

    @ServerRequestFilter
    public void captureTraceParent(ContainerRequestContext request) {
        TraceContext.set(request.getHeaderString("traceparent"));
    }
}
