package dev.umbra.platform.nativeimage;

import org.graalvm.nativeimage.hosted.Feature;
import org.graalvm.nativeimage.hosted.RuntimeReflection;

/**
 * Registers {@link PlatformReflection#classes()} (constructors, methods and fields: Jackson reads
 * records through them) while native-image analyses the application. Named by
 * {@code quarkus.native.additional-build-args} in the platform's {@code microprofile-config.properties};
 * never loaded on the JVM.
 */
public final class PlatformReflectionFeature implements Feature {

    @Override
    public void beforeAnalysis(BeforeAnalysisAccess access) {
        for (Class<?> type : PlatformReflection.classes()) {
            RuntimeReflection.register(type);
            RuntimeReflection.register(type.getDeclaredConstructors());
            RuntimeReflection.register(type.getDeclaredMethods());
            RuntimeReflection.register(type.getDeclaredFields());
        }
    }
}
