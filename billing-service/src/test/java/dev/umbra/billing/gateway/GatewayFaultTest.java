package dev.umbra.billing.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.impl.NoStackTraceTimeoutException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class GatewayFaultTest {

    @Test
    void aConnectionThatCouldNotBeOpenedSurelyDidNotDeliverTheRequest() {
        assertThat(GatewayFault.of(new ConnectException("Connection refused")).surelyNotArrived()).isTrue();
        assertThat(GatewayFault.of(new ConnectTimeoutException("connection timed out: /127.0.0.1:1")).surelyNotArrived()).isTrue();
        assertThat(GatewayFault.of(new UnknownHostException("pg.example")).surelyNotArrived()).isTrue();
        assertThat(GatewayFault.of(new CompletionException(new ConnectException("Connection refused"))).surelyNotArrived()).isTrue();
    }

    @Test
    void noAnswerInTimeAResetOrAClosedConnectionLeaveTheOutcomeUncertain() {
        assertThat(GatewayFault.of(new NoStackTraceTimeoutException("The timeout period of 1000ms has been exceeded")).surelyNotArrived())
                .isFalse();
        assertThat(GatewayFault.of(new SocketException("Connection reset")).surelyNotArrived()).isFalse();
        assertThat(GatewayFault.of(new HttpClosedException("Connection was closed")).surelyNotArrived()).isFalse();
        assertThat(GatewayFault.of(new IllegalStateException("something unforeseen")).surelyNotArrived()).isFalse();
    }

    @Test
    void onlyServerErrorsAndThrottlingAreRefusalsBeforeProcessing() {
        assertThat(GatewayFault.refusedUnprocessed(500)).isTrue();
        assertThat(GatewayFault.refusedUnprocessed(429)).isTrue();
        assertThat(GatewayFault.refusedUnprocessed(200)).isFalse();
        assertThat(GatewayFault.refusedUnprocessed(400)).isFalse();
        assertThat(GatewayFault.refusedUnprocessed(404)).isFalse();
        assertThat(GatewayFault.refusedUnprocessed(502)).isFalse();
        assertThat(GatewayFault.refusedUnprocessed(504)).isFalse();
        assertThat(GatewayFault.refused(429).surelyNotArrived()).isTrue();
    }

    @Test
    void otherServerErrorsLeaveTheOutcomeUncertain() {
        assertThat(GatewayFault.failedUncertain(502)).isTrue();
        assertThat(GatewayFault.failedUncertain(503)).isTrue();
        assertThat(GatewayFault.failedUncertain(504)).isTrue();
        assertThat(GatewayFault.failedUncertain(500)).isFalse();
        assertThat(GatewayFault.failedUncertain(429)).isFalse();
        assertThat(GatewayFault.failedUncertain(404)).isFalse();
        assertThat(GatewayFault.failed(504).surelyNotArrived()).isFalse();
    }

    @Test
    void aTimeoutThatNamesTheChargesUriDoesNotCarryTheBillingKeyOn() {
        GatewayFault fault = GatewayFault.of(new NoStackTraceTimeoutException(
                "The timeout period of 5000ms has been exceeded while executing POST /v1/billing/bk_0123456789abcdef for server pg:443"));
        assertThat(fault.getMessage()).doesNotContain("bk_0123456789abcdef").contains("POST /v1/billing/*** for server pg:443");
        // nor anything a log of the whole fault prints: its cause chain and stack trace
        StringWriter printed = new StringWriter();
        fault.printStackTrace(new PrintWriter(printed));
        assertThat(printed.toString()).doesNotContain("bk_0123456789abcdef");
        assertThat(fault.getCause()).isNull();
        GatewayFault wrapped = GatewayFault.of(new CompletionException(new NoStackTraceTimeoutException(
                "The timeout period of 5000ms has been exceeded while executing POST /v1/billing/bk_0123456789abcdef for server pg:443")));
        StringWriter printedToo = new StringWriter();
        wrapped.printStackTrace(new PrintWriter(printedToo));
        assertThat(printedToo.toString()).doesNotContain("bk_0123456789abcdef");
        assertThat(new PaymentGatewayClient.ChargeRequest("bk_0123456789abcdef", "customer", "order-1", "key-1", 9_900, "PRO"))
                .asString().doesNotContain("bk_0123456789abcdef").contains("order-1");
    }
}
