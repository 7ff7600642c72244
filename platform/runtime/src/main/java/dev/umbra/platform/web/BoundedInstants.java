package dev.umbra.platform.web;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Every instant of a JSON body is read as {@link Instants} says: one outside the years 1 to 9999 makes the body unreadable (400). */
@Singleton
public class BoundedInstants implements ObjectMapperCustomizer {

    /** After Quarkus' own customizers, which register the Java time module: the deserializer registered last is the one used. */
    @Override
    public int priority() {
        return MINIMUM_PRIORITY;
    }

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.registerModule(new SimpleModule("bounded-instants").addDeserializer(Instant.class, new Deserializer()));
    }

    private static final class Deserializer extends StdDeserializer<Instant> {

        Deserializer() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            Instant instant = InstantDeserializer.INSTANT.deserialize(parser, context);
            if (instant == null) {
                return null;
            }
            try {
                return Instants.withinRange(instant, parser.getText());
            } catch (DateTimeParseException e) {
                throw InvalidFormatException.from(parser, "not " + Instants.EXPECTED, parser.getText(), Instant.class);
            }
        }
    }
}
